import { uriMatchesTemplate } from './listing';

describe('matching a URI against a resource template', () => {
  it.each([
    ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/42', true],
    ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/', true],
    ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/4/2', false],
    ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/42', false],
    ['file:///{+path}', 'file:///etc/hosts', true],
    ['repo://{owner}/{repo}{?ref}', 'repo://octo/hello?ref=main', true],
    ['repo://{owner}/{repo}{?ref}', 'repo://octo/hello', true],
    ['repo://{owner}/{repo}{?ref}', 'repo://octo/hello/extra', false],
    ['a.b://x{/segments}', 'a.b://x/1/2', true],
    ['a.b://x{/segments}', 'aXb://x/1/2', false],
    ['plain://fixed', 'plain://fixed', true],
    ['plain://fixed', 'plain://fixed2', false],
  ])('%s against %s: %s', (template, uri, expected) => {
    expect(uriMatchesTemplate(uri, template)).toBe(expected);
  });
});
