/**
 * Pulumi's passphrase secrets provider, byte for byte, so that a stack file written by a real
 * `pulumi config set --secret` decrypts here and the other way round:
 * - key = PBKDF2-SHA256(passphrase, salt, 1,000,000 iterations, 32 bytes);
 * - a value is `v1:<base64 nonce>:<base64 AES-256-GCM ciphertext with its tag appended>`;
 * - the stack's `encryptionsalt` is `v1:<base64 8-byte salt>:` followed by the encryption of the
 *   word "pulumi", which tells a wrong passphrase from a right one.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";

/** Encrypts and decrypts single string values with one stack's key. */
export interface Crypter {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

const ITERATIONS = 1_000_000;
const CHECK_WORD = "pulumi";

// Deriving a key costs about a quarter of a second; tests and the CLI derive the same one many times.
const keyCache = new Map<string, Promise<Buffer>>();

function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  const cacheKey = `${salt.toString("base64")}\0${passphrase}`;
  let key = keyCache.get(cacheKey);
  if (!key) {
    key = new Promise<Buffer>((resolve, reject) =>
      crypto.pbkdf2(passphrase, salt, ITERATIONS, 32, "sha256", (err, k) =>
        err ? reject(err) : resolve(k),
      ),
    );
    keyCache.set(cacheKey, key);
  }
  return key;
}

function crypterFromKey(key: Buffer): Crypter {
  return {
    encrypt(plaintext) {
      const nonce = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, nonce);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const sealed = Buffer.concat([body, cipher.getAuthTag()]);
      return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
    },
    decrypt(ciphertext) {
      const parts = ciphertext.split(":");
      if (parts.length !== 3 || parts[0] !== "v1") {
        throw new Error("malformed secret value: expected v1:<nonce>:<ciphertext>");
      }
      const nonce = Buffer.from(parts[1] ?? "", "base64");
      const sealed = Buffer.from(parts[2] ?? "", "base64");
      if (sealed.length < 16) throw new Error("malformed secret value: too short");
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, nonce);
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - 16)),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

/**
 * The passphrase from `PULUMI_CONFIG_PASSPHRASE`, or from the file named by
 * `PULUMI_CONFIG_PASSPHRASE_FILE`, as the Pulumi CLI reads it; undefined when neither is set.
 */
export function passphraseFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const direct = env.PULUMI_CONFIG_PASSPHRASE;
  if (direct !== undefined) return direct;
  const file = env.PULUMI_CONFIG_PASSPHRASE_FILE;
  // Pulumi trims the whole file, not only a final newline.
  if (file) return fs.readFileSync(file, "utf8").trim();
  return undefined;
}

/** Pulumi's error when the passphrase is needed and neither variable is set. */
export const PASSPHRASE_MISSING =
  "passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE " +
  "environment variables";

/** Creates a new `encryptionsalt` for `passphrase` and the crypter that goes with it. */
export async function newEncryptionSalt(
  passphrase: string,
): Promise<{ encryptionsalt: string; crypter: Crypter }> {
  const salt = crypto.randomBytes(8);
  const crypter = crypterFromKey(await deriveKey(passphrase, salt));
  const encryptionsalt = `v1:${salt.toString("base64")}:${crypter.encrypt(CHECK_WORD)}`;
  return { encryptionsalt, crypter };
}

/**
 * The crypter for an existing `encryptionsalt`; fails with Pulumi's wording when the passphrase
 * does not decrypt the check word.
 */
export async function crypterFromSalt(
  passphrase: string,
  encryptionsalt: string,
): Promise<Crypter> {
  const match = /^v1:([^:]+):(v1:[^:]+:[^:]+)$/.exec(encryptionsalt);
  if (!match?.[1] || !match[2]) {
    throw new Error(`malformed encryptionsalt: ${encryptionsalt.slice(0, 12)}...`);
  }
  const crypter = crypterFromKey(await deriveKey(passphrase, Buffer.from(match[1], "base64")));
  let word: string;
  try {
    word = crypter.decrypt(match[2]);
  } catch {
    word = "";
  }
  if (word !== CHECK_WORD) {
    throw new Error(
      "incorrect passphrase: PULUMI_CONFIG_PASSPHRASE does not decrypt this stack's secrets",
    );
  }
  return crypter;
}

/**
 * Lazily provides one stack's crypter: the key is derived only when a secret is actually read or
 * written, so stacks without secrets need no passphrase at all.
 */
export class StackSecrets {
  private crypter: Promise<Crypter> | undefined;

  /**
   * @param passphrase the passphrase, if one is set
   * @param encryptionsalt the stack's salt, if it has one
   * @param onNewSalt persists a salt created because the stack had none (Pulumi writes it into
   *   `Pulumi.<stack>.yaml`)
   * @param what names the stack in error messages
   */
  constructor(
    private readonly passphrase: string | undefined,
    private encryptionsalt: string | undefined,
    private readonly onNewSalt: (salt: string) => Promise<void>,
    private readonly what: string,
  ) {}

  /** The salt in use (after a secret has been written, even for a new stack). */
  get salt(): string | undefined {
    return this.encryptionsalt;
  }

  /**
   * Uses `salt` (found in the state file) when the stack file has none, e.g. because the stack
   * file was deleted: the state's secrets stay readable with the same passphrase.
   */
  adoptSalt(salt: string): void {
    if (!this.encryptionsalt && !this.crypter) this.encryptionsalt = salt;
  }

  /** The crypter, created on first use; rejects with a clear message without a passphrase. */
  get(): Promise<Crypter> {
    if (!this.crypter) this.crypter = this.create();
    return this.crypter;
  }

  private async create(): Promise<Crypter> {
    if (this.passphrase === undefined) throw new Error(`${PASSPHRASE_MISSING} (${this.what})`);
    if (this.encryptionsalt) return crypterFromSalt(this.passphrase, this.encryptionsalt);
    const created = await newEncryptionSalt(this.passphrase);
    this.encryptionsalt = created.encryptionsalt;
    await this.onNewSalt(created.encryptionsalt);
    return created.crypter;
  }
}
