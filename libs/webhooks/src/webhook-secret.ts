import { CredentialsCipher } from '@app/credentials';
import { randomBytes } from 'node:crypto';

/** The Standard Webhooks secret prefix: `whsec_` then the key in base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, in the Standard Webhooks format (`whsec_` + base64). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** What the secret is sealed to: a ciphertext copied onto another webhook does not open. */
function boundTo(webhookId: string): string {
  return `webhook:${webhookId}`;
}

export function sealWebhookSecret(cipher: CredentialsCipher, webhookId: string, secret: string): string {
  return cipher.seal(secret, boundTo(webhookId));
}

export function openWebhookSecret(cipher: CredentialsCipher, webhookId: string, envelope: string): string {
  return cipher.open<string>(envelope, boundTo(webhookId));
}
