#!/usr/bin/env node
// The compiled command line, in this same process, so signals (Ctrl-C, SIGTERM from a CI job) reach the mock directly.
import '../dist/src/cli/main.js'
