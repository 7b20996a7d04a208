// examples/adapter-template is a copy-me package outside the workspace: this test runs its own
// conformance test file, so the template stays in step with the contract. Its bare imports
// (@vmhub/core, @vmhub/conformance) resolve as if from this package — what
// `npm install` gives a copied template. @vmhub/conformance resolves to dist: build first.
import { registerHooks } from 'node:module';

const template = new URL('../../../examples/adapter-template/', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const bare = !/^(\.|\/|node:|file:|data:)/.test(specifier);
    if (bare && context.parentURL?.startsWith(template)) return nextResolve(specifier, { ...context, parentURL: import.meta.url });
    return nextResolve(specifier, context);
  },
});

await import(new URL('test/conformance.test.ts', template).href);
