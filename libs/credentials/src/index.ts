export { CredentialsCipher, CredentialsDecryptError, CipherKey } from './credentials-cipher';
export { CredentialsModule } from './credentials.module';
