#!/usr/bin/env -S node --max-semi-space-size=32
// The fleethub command: runs the compiled CLI (npm install builds it into dist/). The node flags above are
// the ones every fleethub process runs with (docs/operations.md, "Node flags"): a hub serving a fleet
// allocates fast, and a young generation of up to 32 MiB collects less often than node's default 16. Who
// runs this file with `node` directly passes them too (npm start does; the test helpers read this line).
import '../dist/src/cli/main.js';
