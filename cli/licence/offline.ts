/**
 * Offline activation (licensing.md, "Offline activation"): `request` on the offline machine,
 * `answer FILE` on a connected one, `install FILE` back on the first. The pending installation
 * key stays in `<home>/licence/pending-activation.json` between request and install.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import {
  generateKeyPair,
  randomBytes,
  signOfflineRequest,
  toBase64Url,
  StalwartError,
  TRUSTED_KEYS,
  type OfflineAnswer,
  type OfflineRequest,
} from "../../worker/portable/licensing/index.js";
import { adopt, requireApiKey, serviceUrlOf, type IssuedAnswer, type ServiceOptions } from "./activate.js";
import { licencePaths, readJson, resolveHome, writeJsonAtomic } from "./files.js";
import type { LoadedInstallation } from "./installation.js";
import { ServiceClient } from "./service.js";

interface Pending {
  v: 1;
  installation_id: string;
  public_key: string;
  secret_key: string;
  created_at: string;
}

/** Write activation-request.json (to `out`) and keep the new key pending. */
export async function writeRequest(opts: { home?: string; out: string; now?: () => Date }): Promise<OfflineRequest> {
  const now = (opts.now ?? (() => new Date()))();
  const pair = await generateKeyPair();
  const pending: Pending = {
    v: 1,
    installation_id: `inst_${toBase64Url(randomBytes(16))}`,
    public_key: toBase64Url(pair.publicKey),
    secret_key: toBase64Url(pair.secretKey),
    created_at: now.toISOString(),
  };
  writeJsonAtomic(licencePaths(opts.home).pending, pending);
  const request = await signOfflineRequest({ installation_id: pending.installation_id, public_key: pending.public_key, created_at: pending.created_at }, pair.secretKey);
  writeJsonAtomic(opts.out, request);
  return request;
}

function readFileJson<T>(file: string, what: string): T {
  let text: string;
  let special = false;
  try {
    // (a device, a pipe or a socket would be read forever, or wait for a writer; a folder fails below)
    const st = statSync(file);
    special = !st.isFile() && !st.isDirectory();
    if (!special) text = readFileSync(file, "utf8");
  } catch (err) {
    throw new StalwartError("FileUnreadable", `cannot read \`${file}\`: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { hint: `pass the path of ${what}` });
  }
  if (special) throw new StalwartError("FileUnreadable", `\`${file}\` is not a regular file`, { hint: `pass the path of ${what}` });
  try {
    return JSON.parse(text!) as T;
  } catch {
    throw new StalwartError("FileUnreadable", `\`${file}\` is not JSON`, { hint: `pass the ${what} file as it was written` });
  }
}

/** On a connected machine: post the request, write the answer (to `out`). */
export async function writeAnswer(requestFile: string, opts: ServiceOptions & { out: string }): Promise<OfflineAnswer> {
  const request = readFileJson<OfflineRequest>(requestFile, "activation-request.json");
  const serviceUrl = serviceUrlOf(opts);
  const apiKey = requireApiKey(opts, serviceUrl);
  const client = new ServiceClient(serviceUrl, opts.fetch ?? fetch);
  const answer = await client.withKey<OfflineAnswer>("POST", "/v1/licences/offline", apiKey, { request });
  writeJsonAtomic(opts.out, answer);
  return answer;
}

/** Back on the offline machine: verify the answer against the pending key and install it. */
export async function installAnswer(answerFile: string, opts: ServiceOptions = {}): Promise<LoadedInstallation> {
  const home = resolveHome(opts.home);
  const answer = readFileJson<OfflineAnswer>(answerFile, "activation-answer.json");
  const pending = readJson<Pending>(licencePaths(home).pending);
  if (!pending) {
    throw new StalwartError("NoPendingRequest", `no pending activation request in \`${licencePaths(home).dir}\``, {
      hint: "run `stalwart licence request` on this machine first; the answer must come from that request",
    });
  }
  if (answer?.type !== "activation_answer") throw new StalwartError("FileUnreadable", `\`${answerFile}\` is not an activation answer`, { hint: "pass the file `stalwart licence answer` wrote" });
  const now = (opts.now ?? (() => new Date()))();
  const inst = await adopt(home, answer as IssuedAnswer, {
    id: pending.installation_id,
    publicKey: pending.public_key,
    secretKey: pending.secret_key,
    serviceUrl: serviceUrlOf(opts),
    offline: true,
    now,
    keys: opts.trustedKeys ?? TRUSTED_KEYS,
  });
  rmSync(licencePaths(home).pending, { force: true });
  return inst;
}
