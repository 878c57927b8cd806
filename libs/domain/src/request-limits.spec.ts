import { ServerKind } from './enums';
import { InvalidInputError } from './errors';
import { parseKinds } from './request-limits';

describe('parsing the kinds a search asks for', () => {
  it('reads canonical names, short names and numbers, in order', () => {
    expect(parseKinds(['MCP_SERVER_KIND_CUSTOM', 'BUILT_IN', 5])).toEqual([ServerKind.CUSTOM, ServerKind.BUILT_IN, ServerKind.INTEGRATION]);
  });

  it('leaves an absent list absent (no filter), and an empty one empty', () => {
    expect(parseKinds(undefined)).toBeUndefined();
    expect(parseKinds([])).toEqual([]);
  });

  it('refuses a value that is not a kind with a 400 naming the field and the value', () => {
    const refusal = (() => {
      try {
        parseKinds(['CUSTOM', 9]);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as InvalidInputError).message).toBe('kinds: 9 is not a server kind');
    expect((refusal as InvalidInputError).errors).toEqual([{ field: 'kinds', message: 'must be server kinds' }]);
  });
});
