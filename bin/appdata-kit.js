#!/usr/bin/env node
// The command line, bundled by `npm run build` (scripts/bundle-bin.mjs), in this same process, so
// signals (Ctrl-C, SIGTERM from a CI job) reach the mock directly.
import '../dist/bin/main.mjs'
