#!/usr/bin/env node
// Published entry point: runs the compiled CLI.
import('../dist/cli/main.js');
