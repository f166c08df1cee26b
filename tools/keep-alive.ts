/**
 * Whether a local server keeps an idle connection open past the window in which clients reuse one: the same
 * request twice on one socket, 8 s apart: longer than Node's default keep-alive (5 s, which its server stretches
 * by a second before it closes) and than fetch's reuse window.
 */
import { once } from 'node:events';
import { connect } from 'node:net';

/**
 * Sends `request` (a whole HTTP/1.1 request without a body) to 127.0.0.1:`port`, idles 8 s, and sends it again.
 * Resolves to the status lines of the two answers; rejects if the server closed the connection in between.
 */
export async function askTwiceAcrossIdle(port: number, request: string): Promise<string[]> {
  // A reset (a request written to a connection the server closed) shows as the 'close' that follows it.
  const socket = connect(port, '127.0.0.1')
    .setEncoding('utf8')
    .on('error', () => {});
  let received = '';
  const statusLines = (): string[] => received.match(/^HTTP\/1\.1 \d{3}[^\r\n]*/gm) ?? [];
  const ask = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const answers = statusLines().length + 1;
      const onData = (chunk: string): void => {
        received += chunk;
        if (statusLines().length < answers) return;
        socket.off('data', onData).off('close', onClose);
        resolve();
      };
      const onClose = (): void => reject(new Error('the server closed the connection before it answered'));
      socket.on('data', onData).on('close', onClose).write(request);
    });
  await ask();
  await new Promise((resolve) => setTimeout(resolve, 8_000));
  if (socket.destroyed) throw new Error('the server closed the idle connection');
  await ask();
  socket.end();
  await once(socket, 'close');
  return statusLines();
}
