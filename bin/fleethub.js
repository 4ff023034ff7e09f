#!/usr/bin/env node
// The fleethub command: runs the compiled CLI (npm install builds it into dist/).
import '../dist/src/cli/main.js';
