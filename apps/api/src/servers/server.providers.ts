import { AppConfig, APP_CONFIG } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { LookupAll, OUTBOUND_LOOKUP, OutboundBlockedError, OutboundPolicy } from '@app/mcp';
import { FactoryProvider } from '@nestjs/common';
import { InvalidInputError } from '@app/domain';

export const credentialsCipherProvider: FactoryProvider<CredentialsCipher> = {
  provide: CredentialsCipher,
  useFactory: (config: AppConfig) => new CredentialsCipher(config.credentialsKey, config.previousCredentialsKeys),
  inject: [APP_CONFIG],
};

export const outboundPolicyProvider: FactoryProvider<OutboundPolicy> = {
  provide: OutboundPolicy,
  useFactory: (config: AppConfig, lookup?: LookupAll) => new OutboundPolicy(config.outboundAllow, { lookup }),
  inject: [APP_CONFIG, { token: OUTBOUND_LOOKUP, optional: true }],
};

/** Checks a tenant-supplied URL against the outbound policy (resolving its host); a refusal is a 400 naming the field. */
export async function assertOutboundAllowed(policy: OutboundPolicy, url: string, field = 'url'): Promise<void> {
  try {
    await policy.assertAllowed(url);
  } catch (err) {
    if (err instanceof OutboundBlockedError) {
      throw new InvalidInputError(`${field}: ${err.message}`, [{ field, message: err.message }]);
    }
    throw err;
  }
}
