import { uriMatchesTemplate } from './listing';

/** Each template, the URIs it matches and the URIs it does not. */
const TEMPLATES: { template: string; matches: string[]; misses: string[] }[] = [
  {
    template: 'demo://resource/dynamic/text/{resourceId}',
    matches: ['demo://resource/dynamic/text/42', 'demo://resource/dynamic/text/'],
    misses: ['demo://resource/dynamic/text/4/2', 'demo://resource/dynamic/blob/42'],
  },
  { template: 'file:///{+path}', matches: ['file:///etc/hosts'], misses: [] },
  { template: 'repo://{owner}/{repo}{?ref}', matches: ['repo://octo/hello?ref=main', 'repo://octo/hello'], misses: ['repo://octo/hello/extra'] },
  { template: 'a.b://x{/segments}', matches: ['a.b://x/1/2'], misses: ['aXb://x/1/2'] },
  { template: 'plain://fixed', matches: ['plain://fixed'], misses: ['plain://fixed2'] },
];

describe('matching a URI against a resource template', () => {
  it.each(
    TEMPLATES.flatMap(({ template, matches, misses }) => [
      ...matches.map((uri) => [template, uri, true] as const),
      ...misses.map((uri) => [template, uri, false] as const),
    ]),
  )('%s against %s: %s', (template, uri, expected) => {
    expect(uriMatchesTemplate(uri, template)).toBe(expected);
  });
});
