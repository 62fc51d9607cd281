/** A progressive skill with two mistakes: an unknown ID in `progressive.always` (5:19) and a heading without an ID (14:9). */
export const BROKEN = `---
name: broken
description: A progressive skill with two mistakes.
progressive:
  always: [setup, missing-rules]
---

Follow the setup before anything else.

## Setup {#setup}

Install the tools.

## Usage

Run the tool on the input file.
`
