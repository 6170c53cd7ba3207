/**
 * The servers `stalwart` starts on the person's machine (the approvals page, the gateway over
 * HTTP) answer only under a loopback name at their own port. A site the person visits can point
 * its own name at 127.0.0.1 (DNS rebinding): its requests then carry that name as their Host,
 * which a same-origin check built from the Host takes as the server's own.
 */

/** Whether `url` (a request's, built from its Host) names localhost, 127.x.x.x or [::1] at `port`. */
export function loopbackHost(url: string, port: number): boolean {
  const u = new URL(url);
  const name = u.hostname;
  return (name === "localhost" || name === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(name)) && Number(u.port || 80) === port;
}
