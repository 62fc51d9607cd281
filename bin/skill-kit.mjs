#!/usr/bin/env node
import { run } from '../dist/cli.mjs'

process.exitCode = await run(process.argv.slice(2))
