// Preloaded (node --require) into server-everything's Streamable HTTP mode by
// compare-official.sh. That mode calls `app.listen(PORT)` with no host, which listens on every
// interface; the benchmark must only ever be reachable on this machine, so a listen() given a
// port and no host is pinned to 127.0.0.1. Every other form of listen() is left as it is.
'use strict';
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const portOnly = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]));
  if (portOnly && (args.length === 1 || typeof args[1] === 'function')) {
    args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
