export { CredentialsCipher, CredentialsDecryptError, CipherKey } from './credentials-cipher';
