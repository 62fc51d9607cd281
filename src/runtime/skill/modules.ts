// What generated skill modules import. Kept apart from the activation engine,
// so that a bundle that only imports skills does not carry its path matcher.
export { createSkill, patchSkill } from './create-skill'
export { createRegistry, patchRegistry } from './registry'
