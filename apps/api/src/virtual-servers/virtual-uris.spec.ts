import fc from 'fast-check';
import { resolveUri, rewriteContentUris, rewriteToolMeta, rewriteUri } from './virtual-uris';

describe("a virtual server's resource URIs", () => {
  it('keeps the scheme and puts the member prefix first', () => {
    expect(rewriteUri('everything', 'demo://resource/static/document/architecture.md')).toBe('demo://everything/resource/static/document/architecture.md');
    expect(rewriteUri('weather', 'ui://weather/view.html')).toBe('ui://weather/weather/view.html');
    expect(rewriteUri('files', 'file:///tmp/a.txt')).toBe('file://files//tmp/a.txt');
    expect(rewriteUri('ids', 'urn:isbn:0451450523')).toBe('mcp-registry-v://ids/urn:isbn:0451450523');
  });

  it('reads every rewritten URI back to its member and original', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9_]{1,22}$/), fc.oneof(fc.webUrl(), fc.string(), fc.stringMatching(/^[a-z]+:\/\/.*$/), fc.stringMatching(/^[a-z]+:[^/].*$/)), (prefix, uri) => {
        expect(resolveUri(rewriteUri(prefix, uri))).toEqual({ prefix, uri });
      }),
      { numRuns: 500 },
    );
  });

  it('does not read a URI that no virtual server wrote as one of its own', () => {
    expect(resolveUri('https://example.com/a')).toBeUndefined();
    expect(resolveUri('not a uri')).toBeUndefined();
  });

  it('rewrites resource links and embedded resources of results, the contents of reads, and MCP Apps UI links', () => {
    expect(
      rewriteContentUris('e', {
        content: [
          { type: 'text', text: 'demo://x' },
          { type: 'resource_link', uri: 'demo://x', name: 'x' },
          { type: 'resource', resource: { uri: 'ui://app/v.html', text: '<p/>' } },
        ],
      }),
    ).toEqual({
      content: [
        { type: 'text', text: 'demo://x' },
        { type: 'resource_link', uri: 'demo://e/x', name: 'x' },
        { type: 'resource', resource: { uri: 'ui://e/app/v.html', text: '<p/>' } },
      ],
    });
    expect(rewriteContentUris('e', { contents: [{ uri: 'demo://x', text: 't' }] })).toEqual({ contents: [{ uri: 'demo://e/x', text: 't' }] });
    expect(rewriteContentUris('e', { messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'demo://x', text: 't' } } }] })).toEqual({
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'demo://e/x', text: 't' } } }],
    });
    expect(rewriteToolMeta('e', { ui: { resourceUri: 'ui://app/v.html' }, 'ui/resourceUri': 'ui://app/v.html', other: 1 })).toEqual({
      ui: { resourceUri: 'ui://e/app/v.html' },
      'ui/resourceUri': 'ui://e/app/v.html',
      other: 1,
    });
  });
});
