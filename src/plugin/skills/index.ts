// Skills: `x/SKILL.md` and its `?cover`, `?sections`, `?section=<id>` and
// `?meta` forms, the registry of the skill folders (`virtual:skill-kit/skills`),
// and the dev server's hot updates of both.

export { hotUpdateSkills, servedModule, watchSkills } from './hot-update'
export { REGISTRY_ID, registryKind } from './registry-kind'
export { skillKind } from './skill-kind'
