/**
 * The fake provider from test/fakes in a process of its own, so its work is
 * neither charged to the service nor to the load generator.
 * Usage: node fake-provider-process.js <latencyMs> [behaviour as JSON]; reports { url } over IPC.
 */
import { type FakeBehaviour, startFakeProviderServer } from '../test/fakes/provider-server.js';

const latencyMs = Number(process.argv[2] ?? 0);
const behaviour = process.argv[3] ? (JSON.parse(process.argv[3]) as FakeBehaviour) : undefined;
// record: false — a load run would otherwise keep every request in memory.
const fake = await startFakeProviderServer({ latencyMs, record: false, behaviour });
process.send?.({ url: fake.url });
process.on('SIGTERM', () => void fake.close().finally(() => process.exit(0)));
// Never outlive the runner, even if it dies without killing us.
process.on('disconnect', () => process.exit(0));
