import { DiscoveryStateRepository } from '@app/database';
import { useTestApp } from '../support/app';
import { registerServer } from '../support/servers';

// A sweep that runs while a registration is queueing its discovery must leave that discovery to the registration:
// otherwise the run is recorded under the sweep's trigger ('recovered') instead of 'registered'.
describe('the sweep and a discovery just asked for', () => {
  const t = useTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });

  it('leaves a server asked for within the last seconds to its requester, and takes it up after that', async () => {
    const { id } = await registerServer(t, { name: 'just-asked', kind: 'BUILT_IN', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' });
    const state = t.app.get(DiscoveryStateRepository);
    const waiting = async () => (await state.listWaiting(1000)).map((c) => c.id);
    expect(await waiting()).not.toContain(id);
    await t.runtime.prisma.$executeRaw`UPDATE server_discovery SET requested_at = now() - interval '10 seconds' WHERE server_id = ${id}::uuid`;
    expect(await waiting()).toContain(id);
  });
});
