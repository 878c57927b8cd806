import { SHARE_RETRY_MAX_MS, SHARE_RETRY_MS, shareRetryMs, TenantShare } from './tenant-share';

describe('TenantShare', () => {
  it("gives each tenant at most its share of places, independently of the others', and takes them back", () => {
    const share = new TenantShare(2);
    expect([share.tryEnter('a'), share.tryEnter('a'), share.tryEnter('a')]).toEqual([true, true, false]);
    expect(share.tryEnter('b')).toBe(true);
    expect(share.runningOf('a')).toBe(2);
    share.leave('a');
    expect(share.tryEnter('a')).toBe(true);
    share.leave('a');
    share.leave('a');
    share.leave('b');
    expect([share.runningOf('a'), share.runningOf('b')]).toEqual([0, 0]);
    // Leaving more often than entering never makes room beyond the share.
    share.leave('a');
    expect([share.tryEnter('a'), share.tryEnter('a'), share.tryEnter('a')]).toEqual([true, true, false]);
  });

  it('puts a job back for longer each time it comes back too early, up to a cap, with jitter around it', () => {
    expect(shareRetryMs(1, 0.5)).toBe(SHARE_RETRY_MS);
    expect(shareRetryMs(2, 0.5)).toBe(SHARE_RETRY_MS * 2);
    expect(shareRetryMs(30, 0.5)).toBe(SHARE_RETRY_MAX_MS);
    expect(shareRetryMs(1, 0)).toBe(Math.round(SHARE_RETRY_MS * 0.75));
    expect(shareRetryMs(30, 1)).toBe(Math.round(SHARE_RETRY_MAX_MS * 1.25));
  });
});
