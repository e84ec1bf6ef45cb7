/**
 * A certificate authority and a server certificate for `localhost`, generated at start, so that
 * clients which only speak `https://` can be tested. The CA certificate is written to a file that
 * a client adds to its trusted roots (Node: `NODE_EXTRA_CA_CERTS` or an agent's `ca`).
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireServerPeers } from "./peers.js";

/** The generated material: what the server needs, and the CA file for clients. */
export interface TlsMaterial {
  /** Server private key (PEM). */
  key: string;
  /** Server certificate followed by the CA certificate (PEM chain). */
  cert: string;
  /** The CA certificate (PEM) that clients must trust. */
  ca: string;
  /** Path of a file holding {@link TlsMaterial.ca}. */
  caFile: string;
  /** Deletes the directory of the CA file. */
  dispose(): Promise<void>;
}

/**
 * Generates a CA and a server certificate for `localhost`, `127.0.0.1` and `::1`. The server
 * certificate is signed by the CA rather than self-signed, because a strict client refuses a CA
 * certificate presented as a server's leaf.
 */
export async function generateTlsMaterial(): Promise<TlsMaterial> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 30 * 24 * 3600_000);
  // EC keys: generating two RSA keys would cost most of a second on a small machine.
  // Loaded here, not at the top: only a TLS tenant needs `selfsigned` (an optional peer).
  requireServerPeers({ tls: true });
  const { generate } = await import("selfsigned");
  const ca = await generate([{ name: "commonName", value: "pulumi-tenant local tenant API CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  const dir = await mkdtemp(join(tmpdir(), "tenant-api-tls-"));
  const caFile = join(dir, "ca.pem");
  await writeFile(caFile, ca.cert, { mode: 0o644 });
  return {
    key: server.private,
    cert: `${server.cert.trim()}\n${ca.cert.trim()}\n`,
    ca: ca.cert,
    caFile,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
