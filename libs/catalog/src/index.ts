export * from './server-json';
export { validateServerJson, isServerJson } from './server-json.validator';
export { convertClientEntry, guessTransport, CLIENT_CONFIG_META, CLIENT_CONFIG_NAMESPACE, ConvertedEntry } from './client-config';
export { readImportBody, ImportItem, ImportFormat } from './import-body';
export { instantiate, Instantiation, CatalogRegistration, InputValue } from './instantiate';
