/**
 * A server `stalwart` starts on the person's machine (the gateway over HTTP, the approvals page)
 * that cannot bind: said as what the person can do about it. `EADDRINUSE` reached them as
 * "internal error: Error: listen EADDRINUSE" with a stack trace.
 */
import { InputError } from "../worker/portable/engine/index.js";

/** `flag`: the option as the person gave it (`--listen 127.0.0.1:8765`, `--port 8700`). */
export function listenError(err: NodeJS.ErrnoException, flag: string, port: number): Error {
  if (err.code === "EADDRINUSE") return new InputError(`\`${flag}\`: another process listens there`, undefined, "choose another port, or stop what listens there (`ss -ltnp` names it)");
  if (err.code === "EACCES") return new InputError(`\`${flag}\`: this user may not listen on port ${port}`, undefined, "choose a port above 1023");
  if (err.code === "EADDRNOTAVAIL") return new InputError(`\`${flag}\`: this machine has no such address`, undefined, "use 127.0.0.1");
  return err;
}
