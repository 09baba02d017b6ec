// Writes dist/build-time.json: when this package was built. A hub whose wall clock reads earlier
// than that has plainly not been set. SOURCE_DATE_EPOCH, when a packager
// sets it for a reproducible build, is the time recorded.
import { writeFileSync } from 'node:fs';

const epoch = Number(process.env.SOURCE_DATE_EPOCH);
const builtAt = new Date(Number.isInteger(epoch) && epoch > 0 ? epoch * 1000 : Date.now()).toISOString();
writeFileSync(new URL('../dist/build-time.json', import.meta.url), `${JSON.stringify({ builtAt })}\n`);
