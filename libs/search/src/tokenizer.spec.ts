import { isIndexable, splitWords, tokenize } from './tokenizer';
import { stem } from './stemmer';

describe('splitWords', () => {
  it('splits snake_case, kebab-case, dotted names and paths', () => {
    expect(splitWords('list_pull_requests')).toEqual(['list', 'pull', 'requests']);
    expect(splitWords('get-current-time')).toEqual(['get', 'current', 'time']);
    expect(splitWords('files.read/v2')).toEqual(['files', 'read', 'v2']);
  });

  it('splits camelCase and PascalCase and keeps the whole word after its parts', () => {
    expect(splitWords('listPullRequests')).toEqual(['list', 'pull', 'requests', 'listpullrequests']);
    expect(splitWords('GitHub')).toEqual(['git', 'hub', 'github']);
    expect(splitWords('HTTPServer')).toEqual(['http', 'server', 'httpserver']);
  });

  it('keeps letters and digits together and lower-cases everything', () => {
    expect(splitWords('OAUTH2 ec2 S3')).toEqual(['oauth2', 'ec2', 's3']);
  });

  it('handles letters beyond ASCII', () => {
    expect(splitWords('Zürich café')).toEqual(['zürich', 'café']);
  });
});

describe('tokenize', () => {
  it('drops stop words, single letters and bare numbers, and stems the rest', () => {
    expect(tokenize('Please show me the last 10 commits of a repo').map((t) => t.term)).toEqual([
      'show',
      'last',
      'commit',
      'repo',
    ]);
  });

  it('keeps the written form beside the term', () => {
    expect(tokenize('Searching repositories')).toEqual([
      { surface: 'searching', term: 'search' },
      { surface: 'repositories', term: 'repositori' },
    ]);
  });

  it('stops after maxTokens', () => {
    expect(tokenize('alpha beta gamma delta', 2).map((t) => t.surface)).toEqual(['alpha', 'beta']);
  });

  it('treats filler words of requests as stop words', () => {
    expect(['please', 'want', 'need', 'the', 'my'].every((w) => !isIndexable(w))).toBe(true);
    expect(isIndexable('issue')).toBe(true);
  });
});

describe('stem', () => {
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['motoring', 'motor'],
    ['sing', 'sing'],
    ['hopping', 'hop'],
    ['falling', 'fall'],
    ['hissing', 'hiss'],
    ['happy', 'happi'],
  ])('follows Porter step 1: %s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it.each([
    ['repository', 'repositories'],
    ['create', 'creating'],
    ['create', 'created'],
    ['branch', 'branches'],
    ['switch', 'switches'],
    ['file', 'files'],
    ['message', 'messages'],
    ['query', 'queries'],
    ['status', 'statuses'],
    ['list', 'listing'],
  ])('gives %s and %s one term', (a, b) => {
    expect(stem(a)).toBe(stem(b));
  });

  it('keeps words apart that mean different things', () => {
    expect(stem('manager')).not.toBe(stem('manage'));
    expect(stem('container')).not.toBe(stem('contain'));
  });

  it('leaves short words, digits and non-ASCII words alone', () => {
    expect(stem('is')).toBe('is');
    expect(stem('ec2')).toBe('ec2');
    expect(stem('café')).toBe('café');
  });
});
