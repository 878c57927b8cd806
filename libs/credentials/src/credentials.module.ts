import { APP_CONFIG, AppConfig } from '@app/config';
import { Global, Module } from '@nestjs/common';
import { CredentialsCipher } from './credentials-cipher';

/** The process's one CredentialsCipher, on CREDENTIALS_KEY (and CREDENTIALS_KEYS_PREVIOUS for older ciphertexts). */
@Global()
@Module({
  providers: [
    {
      provide: CredentialsCipher,
      useFactory: (config: AppConfig) => new CredentialsCipher(config.credentialsKey, config.previousCredentialsKeys),
      inject: [APP_CONFIG],
    },
  ],
  exports: [CredentialsCipher],
})
export class CredentialsModule {}
