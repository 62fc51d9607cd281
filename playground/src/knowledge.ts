// The Modern Web Guidance guides as the plugin imports them (playground/guides,
// see vite.config.ts): the larger base, loaded with the Guides and Routes pages.

import guides from 'virtual:skill-kit/knowledge/guides'

export { guides }
