// Skill sources that more than one runtime test uses: an agent session
// (conversation.test.ts) and the skill tool on its own (skill-tool.test.ts).

export const CODE_REVIEW = `---
name: code-review
description: Review a pull request for correctness, tests and readability.
---

# Code review

1. Read the description and the linked issue first.
2. Check that every behaviour change has a test.
3. Leave one comment per problem, with a suggested fix.
`

export const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from merged pull requests.
context_trigger:
  topics:
    - release notes
    - changelog
progressive: {}
---

## Gather changes {#gather}

List the pull requests merged since the last tag.

## Write the notes

Group them under Features, Fixes and Breaking changes.
`

export const ACADEMIC = `---
name: academic-delivery
description: Deliver academic engagements - citation style, formatting and the submission checklist.
context_trigger:
  projects:
    - "A##"
progressive:
  always:
    - house-style
---

## House style {#house-style}

- Cite in APA 7th edition.
- British spelling throughout.

## Submission checklist {#submission}

- [ ] Word count within 10% of the brief.
- [ ] References checked against their DOIs.
- [ ] PDF exported with embedded fonts.
`
