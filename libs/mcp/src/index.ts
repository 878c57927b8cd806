export {};
export {
  PipedreamTokenProvider,
  PipedreamTokenProviderOptions,
  PipedreamCredentialsConfig,
  PipedreamTarget,
  sharedPipedreamTokenProvider,
  pipedreamHeaders,
  pipedreamRequestHeaders,
  pipedreamExternalUserId,
} from './pipedream';
export { OutboundPolicy, OutboundBlockedError } from './outbound-policy';
