#!/usr/bin/env node
import { run } from '../dist/cli.mjs'

process.exitCode = run(process.argv.slice(2))
