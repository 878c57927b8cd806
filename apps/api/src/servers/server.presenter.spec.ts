import { capabilityNames } from './server.presenter';

describe('capabilityNames', () => {
  it('lists the capability keys in a fixed order, whatever order they were stored in', () => {
    expect(capabilityNames({ logging: {}, experimental: {}, prompts: {}, tools: { listChanged: true }, resources: {}, completions: {} })).toEqual([
      'tools',
      'resources',
      'prompts',
      'logging',
      'completions',
      'experimental',
    ]);
  });

  it('is empty before discovery and skips absent capabilities', () => {
    expect(capabilityNames(null)).toEqual([]);
    expect(capabilityNames({ tools: {}, prompts: null, resources: false })).toEqual(['tools']);
  });
});
