/**
 * The fake provider (test/fakes) in a process of its own, so its work is
 * neither charged to the service nor to the load generator.
 * Usage: node fake-provider-process.js <latencyMs> [behaviour as JSON] [reply length];
 * reports { url } over IPC. The reply length repeats the behaviour's reply to that many
 * characters: an answer of megabytes does not fit in one argument (Linux caps one at 128 KiB).
 */
import { type FakeBehaviour, startFakeProviderServer } from '../test/fakes/provider-server.js';

const latencyMs = Number(process.argv[2] ?? 0);
const behaviour = process.argv[3] ? (JSON.parse(process.argv[3]) as FakeBehaviour) : undefined;
const replyLength = Number(process.argv[4] ?? 0);
if (behaviour && typeof behaviour.reply === 'string' && replyLength > 0) {
  behaviour.reply = behaviour.reply.repeat(Math.ceil(replyLength / behaviour.reply.length)).slice(0, replyLength);
}
// record: false — a load run would otherwise keep every request in memory.
const fake = await startFakeProviderServer({ latencyMs, record: false, behaviour });
process.send?.({ url: fake.url });
process.on('SIGTERM', () => void fake.close().finally(() => process.exit(0)));
// Never outlive the runner, even if it dies without killing us.
process.on('disconnect', () => process.exit(0));
