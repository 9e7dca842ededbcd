#!/usr/bin/env node
// Runs the TypeScript command line in this same process through tsx's loader, so the package needs
// no build step and signals (Ctrl-C, SIGTERM from a CI job) reach the mock directly.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
