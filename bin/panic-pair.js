#!/usr/bin/env node
// The installed binary: the compiled CLI is built by `npm ci` / `npm install` (the prepare script).
import('../dist/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    process.stderr.write('panic-pair is not built: run `npm run build` in its folder\n');
  } else {
    process.stderr.write(`panic-pair: ${error && error.message ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
