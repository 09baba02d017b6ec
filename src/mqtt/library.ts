// mqtt, for the places that load it only when they need it: `await import('./library.js')`.
// A dynamic import of the CommonJS package itself gives its functions as named exports in Node,
// but only `default` once esbuild has split the package's bundle into chunks (npm run deb); a
// dynamic import of this ES module gives the same named exports in both.
export { connect, connectAsync } from 'mqtt';
