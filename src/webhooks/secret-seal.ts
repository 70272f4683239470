/**
 * Signing secrets are kept sealed (AES-256-GCM under a key of the deployment's own), so the
 * database, a dump or a backup never holds one as it is: whoever reads a row alone cannot sign.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretSeal {
  constructor(private readonly key: () => Promise<Buffer>) {}

  async seal(secret: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(), iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  async open(sealed: string): Promise<string> {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) throw new Error('a webhook secret is stored in an unknown form');
    const decipher = createDecipheriv('aes-256-gcm', await this.key(), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
