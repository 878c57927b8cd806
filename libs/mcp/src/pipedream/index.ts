export {
  PipedreamTokenProvider,
  PipedreamTokenProviderOptions,
  PipedreamCredentialsConfig,
  sharedPipedreamTokenProvider,
} from './pipedream-token.provider';
export { pipedreamHeaders, pipedreamRequestHeaders, pipedreamExternalUserId, PipedreamTarget } from './pipedream-headers';
