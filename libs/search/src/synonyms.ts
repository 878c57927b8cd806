import { splitWords, termOf } from './tokenizer';

/**
 * Words people use for the same tool intent. A query word also matches the other words of its group, at a
 * lower weight than itself, so "find my tickets" reaches a tool described as "search issues". Kept small and
 * generic on purpose: every entry is a verb or noun that many tool catalogues use, or a product name people
 * use for the thing itself ("gmail" for email, "kubectl" for Kubernetes), never one server's tool names.
 * It was grown by reading the misses of the tuning queries in bench/eval; the holdout queries there measure
 * how well it carries over to requests it was not grown from. Words are compared as terms (lower-cased and
 * lightly stemmed), so one form of a word stands for all of them ("logs" is "log").
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['find', 'search', 'lookup', 'look', 'query', 'locate', 'seek'],
  ['create', 'add', 'new', 'make', 'insert', 'open', 'start'],
  ['delete', 'remove', 'destroy', 'erase', 'drop', 'trash', 'purge', 'forget', 'cancel', 'wipe'],
  ['list', 'enumerate', 'browse', 'show'],
  ['get', 'fetch', 'retrieve', 'read', 'view', 'show', 'load', 'display', 'see', 'check', 'open'],
  ['send', 'post', 'deliver', 'publish', 'share'],
  ['update', 'edit', 'modify', 'change', 'set', 'patch', 'alter', 'adjust', 'reschedule', 'upgrade', 'downgrade'],
  ['file', 'document', 'doc'],
  ['issue', 'ticket', 'bug', 'task', 'incident'],
  ['message', 'chat', 'msg', 'dm'],
  ['email', 'mail', 'inbox', 'gmail'],
  ['repo', 'repository', 'codebase', 'project'],
  ['directory', 'folder', 'dir'],
  ['screenshot', 'capture', 'screen', 'snapshot'],
  ['web', 'internet', 'online', 'website', 'site', 'webpage', 'page', 'browser'],
  ['calendar', 'schedule', 'meeting', 'event', 'appointment', 'invite', 'invitation'],
  ['time', 'clock', 'date', 'today'],
  ['comment', 'reply', 'respond', 'answer'],
  ['user', 'person', 'people', 'member', 'account', 'profile'],
  ['run', 'execute', 'exec', 'invoke', 'trigger', 'launch', 'rerun'],
  ['error', 'exception', 'crash', 'failure', 'fail', 'problem'],
  ['label', 'tag', 'category'],
  ['star', 'favorite', 'bookmark'],
  ['download', 'save', 'export'],
  ['save', 'store', 'remember', 'memorize', 'persist', 'memory'],
  ['database', 'db', 'sql', 'table'],
  ['scrape', 'crawl', 'extract', 'harvest'],
  ['stop', 'cancel', 'kill', 'terminate', 'abort', 'close'],
  ['deploy', 'release', 'rollout', 'ship'],
  ['location', 'place', 'address', 'map', 'near', 'nearby'],
  ['directions', 'route', 'navigate', 'travel', 'go'],
  ['driving', 'car'],
  ['elevation', 'altitude', 'height', 'high'],
  ['relation', 'relationship', 'link', 'connect', 'connection', 'associate', 'association'],
  ['monitor', 'watch', 'track'],
  ['latest', 'recent', 'newest', 'last'],
  ['authenticated', 'login', 'signin'],
  ['distance', 'far'],
  ['click', 'press', 'tap'],
  ['type', 'fill', 'enter', 'input'],
  ['diff', 'difference', 'compare', 'changes'],
  ['status', 'state', 'health'],
  ['copy', 'duplicate', 'fork', 'clone'],
  ['move', 'rename', 'relocate'],
  ['upload', 'attach', 'attachment'],
  ['reaction', 'emoji', 'react'],
  ['channel', 'room'],
  ['thread', 'conversation'],
  ['workflow', 'pipeline', 'ci', 'build', 'job', 'action'],
  ['secret', 'credential', 'password', 'token', 'leak'],
  ['vulnerability', 'advisory', 'security', 'cve', 'vulnerable'],
  ['dependency', 'package', 'library'],
  ['documentation', 'docs', 'manual', 'reference', 'guide'],
  ['image', 'picture', 'photo', 'media'],
  ['think', 'reason', 'ponder'],
  ['sum', 'total', 'plus', 'add'],
  ['notification', 'alert', 'unread', 'mention'],
  ['log', 'history'],
  ['approve', 'review'],
  ['permission', 'access', 'allowed'],
  ['info', 'information', 'details', 'metadata'],
  ['size', 'big', 'large'],
  ['cluster', 'kubernetes', 'k8s', 'kube', 'kubectl'],
  ['container', 'pod'],
  ['env', 'environment', 'variable'],
  ['research', 'investigate', 'study'],
  ['invoice', 'bill'],
  ['supplier', 'vendor'],
  ['subscription', 'plan', 'membership'],
  ['coupon', 'promo', 'discount', 'voucher'],
  ['dispute', 'chargeback'],
  ['refund', 'reimburse'],
  ['weather', 'forecast', 'rain', 'snow', 'sunny', 'temperature', 'storm'],
  ['valid', 'validate', 'verify', 'lint'],
  ['resize', 'viewport', 'width'],
  ['vendor', 'supplier'],
  ['customer', 'client'],
  ['spreadsheet', 'worksheet', 'workbook', 'sheet'],
  ['meeting', 'standup', 'sync', 'call'],
  ['feature', 'flag', 'toggle'],
  ['sprint', 'iteration', 'cycle'],
  ['mute', 'silence', 'snooze', 'quiet'],
  ['resize', 'wide', 'narrow', 'width'],
  ['undo', 'revert', 'reset', 'rollback'],
  ['summary', 'summarize', 'summarise', 'recap', 'overview', 'digest'],
  ['batch', 'bulk', 'multiple'],
  ['enable', 'activate'],
  ['disable', 'deactivate'],
  ['settings', 'preferences', 'configuration', 'config', 'options'],
  ['spam', 'junk'],
  ['transcript', 'captions', 'subtitles'],
  ['employee', 'staff', 'colleague', 'coworker', 'teammate'],
  ['payment', 'charge', 'transaction'],
  ['expense', 'spend'],
  ['revenue', 'income', 'earnings'],
  ['quote', 'estimate', 'quotation'],
  ['deal', 'opportunity'],
  ['lead', 'prospect'],
  ['company', 'organization', 'organisation', 'org'],
  ['note', 'memo'],
  ['board', 'kanban'],
  ['column', 'field'],
  ['row', 'record'],
  ['schema', 'structure'],
  ['terminal', 'shell', 'command', 'cli'],
  // everyday words for what tools of many catalogues name otherwise
  ['presence', 'availability'],
  ['payroll', 'salary', 'wages', 'paycheck', 'payslip'],
  ['observation', 'fact'],
  ['paper', 'article', 'publication'],
  ['hover', 'mouseover'],
  ['webhook', 'callback', 'hook'],
  ['trace', 'span'],
  ['alarm', 'alert'],
  ['downtime', 'maintenance'],
  ['dialog', 'popup', 'modal'],
  ['emulate', 'simulate', 'throttle'],
  ['decline', 'reject', 'refuse'],
  ['screencast', 'recording'],
  ['reminder', 'remind', 'nudge'],
  ['objective', 'goal', 'okr'],
  ['iframe', 'frame', 'embed'],
  ['finalize', 'finalise', 'finish'],
  ['aged', 'overdue'],
  ['price', 'cost'],
  ['product', 'sku'],
  ['epic', 'initiative'],
  ['leave', 'holiday', 'absence'],
  ['activity', 'feed', 'timeline'],
  ['automation', 'automate'],
  ['mock', 'fake', 'stub'],
  ['spec', 'specification', 'openapi', 'swagger'],
  ['transfer', 'wire'],
  ['select', 'choose', 'dropdown'],
  ['clear', 'empty'],
  ['process', 'pid'],
  ['variation', 'variant'],
  ['markdown', 'md'],
  ['usage', 'consumption', 'quota'],
  ['stats', 'statistics', 'metric'],
  ['attendance', 'attendee', 'attended'],
  ['color', 'colour', 'palette'],
  ['definition', 'declaration'],
  ['targeting', 'audience', 'segment'],
  ['template', 'boilerplate', 'preset'],
  ['form', 'survey', 'questionnaire'],
  ['merge', 'combine'],
  ['chart', 'plot'],
  ['scale', 'replica'],
];

/**
 * One-way expansions: abbreviations and the words they stand for ("pr" → pull request, and so "prs"), and
 * nouns used as verbs that imply an action ("email my manager" → send). Each word is tried as an alternative.
 */
export const EXPANSIONS: Readonly<Record<string, readonly string[]>> = {
  pr: ['pull', 'request'],
  mr: ['merge', 'request'],
  dm: ['direct', 'message'],
  k8s: ['kubernetes'],
  gh: ['github'],
  google: ['search', 'web'],
  url: ['link', 'web', 'page'],
  email: ['send'],
  schedule: ['create'],
  ci: ['workflow', 'actions', 'check'],
  // product words people use for the thing itself
  outlook: ['mail', 'email', 'calendar', 'microsoft'],
  teams: ['chat', 'channel', 'microsoft'],
  onedrive: ['drive', 'file', 'microsoft'],
  sharepoint: ['site', 'microsoft'],
  excel: ['spreadsheet', 'worksheet', 'workbook', 'microsoft'],
  office: ['microsoft'],
  o365: ['microsoft'],
  m365: ['microsoft'],
  mongo: ['mongodb'],
  postgres: ['postgresql', 'sql'],
  circle: ['circleci'],
  ooo: ['out', 'office', 'automatic', 'replies'],
  standup: ['meeting', 'event', 'recurring'],
  rum: ['real', 'user', 'monitoring'],
  book: ['schedule', 'create', 'reserve'],
  // owe and owes are one term: whoever owes whom, payables and receivables both
  owe: ['payable', 'receivable', 'aged'],
  agenda: ['calendar', 'event'],
  car: ['driving', 'directions'],
  hot: ['temperature', 'weather'],
  cold: ['temperature', 'weather'],
  warm: ['temperature', 'weather'],
  automatically: ['rule', 'filter', 'automation'],
  eta: ['arrival', 'duration', 'directions'],
  todo: ['task'],
  pto: ['leave', 'time', 'off'],
  approve: ['review', 'approval'],
  // short and product words for the thing itself
  pic: ['image', 'photo'],
  img: ['image'],
  vid: ['video'],
  gcal: ['google', 'calendar'],
  gdrive: ['google', 'drive'],
  gdocs: ['google', 'document'],
  crm: ['contact', 'deal', 'company', 'lead'],
  gha: ['github', 'actions', 'workflow'],
  cicd: ['workflow', 'pipeline', 'build'],
  vm: ['virtual', 'machine', 'instance'],
  dns: ['domain', 'record', 'zone'],
  ssl: ['certificate'],
  tls: ['certificate'],
  cert: ['certificate'],
  auth: ['authentication', 'login', 'authorize'],
  creds: ['credential'],
  perms: ['permission'],
  cfg: ['configuration', 'config', 'settings'],
  conf: ['configuration', 'config', 'settings'],
  prefs: ['preferences', 'settings'],
  addr: ['address'],
  desc: ['description'],
  qty: ['quantity'],
  amt: ['amount'],
  acct: ['account'],
  txn: ['transaction'],
  po: ['purchase', 'order'],
  kpi: ['metric'],
  pnl: ['profit', 'loss'],
  wiki: ['page', 'documentation', 'article'],
  kb: ['knowledge', 'base', 'article'],
  ping: ['message', 'notify', 'status'],
  tweet: ['post', 'twitter'],
  zoom: ['meeting'],
  webinar: ['meeting', 'event'],
  dnd: ['presence', 'status', 'busy'],
  afk: ['presence', 'status', 'away'],
  rsvp: ['respond', 'accept', 'decline', 'invitation'],
  fwd: ['forward'],
  boss: ['manager'],
  ns: ['namespace'],
  svc: ['service'],
  pvc: ['persistent', 'volume', 'claim'],
  pg: ['postgres', 'postgresql', 'sql'],
  psql: ['postgres', 'postgresql', 'sql'],
  js: ['javascript'],
  py: ['python'],
  regex: ['regular', 'expression', 'pattern'],
  regexp: ['regular', 'expression', 'pattern'],
  guid: ['uuid'],
  tz: ['timezone', 'time', 'zone'],
  utc: ['timezone', 'time'],
  temp: ['temperature'],
  cell: ['range'],
  bold: ['format', 'font'],
  italic: ['format', 'font'],
  underline: ['format', 'font'],
  highlight: ['format'],
  enable: ['update', 'toggle'],
  disable: ['update', 'toggle'],
  vacation: ['leave', 'time', 'off'],
  // product and trade words for what the tools call otherwise
  s3: ['bucket', 'storage', 'object'],
  lambda: ['worker', 'function', 'serverless'],
  serverless: ['worker', 'function'],
  lighthouse: ['performance', 'audit'],
  vitals: ['performance'],
  coordinates: ['geocode'],
  latitude: ['geocode', 'coordinates'],
  longitude: ['geocode', 'coordinates'],
  apm: ['trace', 'performance'],
  xhr: ['network', 'request'],
  har: ['network'],
  '2fa': ['authentication', 'factor'],
  mfa: ['authentication', 'factor'],
  sso: ['saml', 'login'],
  wip: ['draft', 'progress'],
  asap: ['urgent', 'priority'],
  sev1: ['severity', 'incident', 'priority'],
  nightly: ['cron', 'schedule', 'recurring'],
  gsheet: ['google', 'spreadsheet', 'sheet'],
  ts: ['typescript'],
  hr: ['employee', 'payroll'],
  ar: ['receivable'],
  ap: ['payable'],
  ytd: ['year', 'date'],
  tld: ['domain'],
  ssh: ['terminal', 'command', 'remote'],
  bash: ['terminal', 'shell', 'command'],
  zsh: ['terminal', 'shell', 'command'],
  powershell: ['terminal', 'shell', 'command'],
  npm: ['package', 'dependency'],
  pip: ['package', 'dependency'],
  docker: ['container', 'image'],
  yaml: ['config', 'configuration'],
  yml: ['config', 'configuration'],
  prod: ['production', 'environment'],
  staging: ['environment'],
  qa: ['test', 'testing'],
  e2e: ['test', 'browser'],
};

/**
 * What a request asks to be done, and what a tool does, in five kinds of action. A request that opens with
 * one of these verbs ("delete the branch", "list my repos") favours the tools whose names say they do
 * that kind of thing over the tools of the same subject that do another ("create_branch" for "delete the
 * branch"); sending and creating are neither for nor against each other ("post an update" may create one).
 */
export enum Action {
  CREATE = 1,
  READ = 2,
  UPDATE = 4,
  DELETE = 8,
  SEND = 16,
}

export const ACTION_WORDS: Readonly<Record<Action, readonly string[]>> = {
  [Action.CREATE]: [
    'create', 'add', 'new', 'make', 'insert', 'generate', 'register', 'append', 'upload', 'write', 'draft', 'schedule', 'book', 'init',
    'initialize',
  ],
  [Action.READ]: [
    'get', 'list', 'show', 'find', 'search', 'fetch', 'retrieve', 'read', 'view', 'look', 'lookup', 'query', 'describe',
    'display', 'browse', 'enumerate', 'check', 'count', 'download', 'export', 'inspect', 'see',
  ],
  [Action.UPDATE]: [
    'update', 'edit', 'modify', 'change', 'set', 'patch', 'rename', 'move', 'alter', 'adjust', 'reschedule', 'replace', 'mark', 'assign',
    'turn', 'toggle', 'enable', 'disable', 'upgrade', 'downgrade',
  ],
  [Action.DELETE]: ['delete', 'remove', 'destroy', 'erase', 'drop', 'trash', 'purge', 'cancel', 'wipe', 'clear', 'unset'],
  [Action.SEND]: ['send', 'post', 'reply', 'publish', 'share', 'notify', 'forward'],
};

/**
 * Verbs that ask for an action when a request opens with them, but in a tool's name are as often nouns or
 * another thing: "log my hours" creates, a tool named get_logs reads; "start a thread" creates, a tool named
 * start_process runs.
 */
export const REQUEST_ACTION_WORDS: Readonly<Partial<Record<Action, readonly string[]>>> = {
  [Action.CREATE]: ['log', 'record', 'put', 'start', 'setup', 'file', 'plan', 'compose', 'invite'],
};

function actionTable(...tables: Readonly<Partial<Record<Action, readonly string[]>>>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const table of tables) {
    for (const [action, words] of Object.entries(table)) {
      for (const w of words ?? []) out.set(termOf(w), (out.get(termOf(w)) ?? 0) | Number(action));
    }
  }
  return out;
}

const ACTION_OF = actionTable(ACTION_WORDS);
const REQUEST_ACTION_OF = actionTable(ACTION_WORDS, REQUEST_ACTION_WORDS);

/** The kinds of action a term in a tool's name names (a bit set of Action), 0 for none. */
export function actionOf(term: string): number {
  return ACTION_OF.get(term) ?? 0;
}

/** The kinds of action a request that opens with this term asks for (a bit set of Action), 0 for none. */
export function requestActionOf(term: string): number {
  return REQUEST_ACTION_OF.get(term) ?? 0;
}

/** Whether a request for `wanted` and a tool that does `does` (bit sets) agree (1), conflict (-1) or neither (0). */
export function actionAgreement(wanted: number, does: number): number {
  if (wanted === 0 || does === 0) return 0;
  if ((wanted & does) !== 0) return 1;
  const makes = Action.CREATE | Action.SEND;
  if ((wanted & makes) !== 0 && (does & makes) !== 0) return 0;
  return -1;
}

/** Weight of a synonym relative to the word that was typed. */
export const SYNONYM_WEIGHT = 0.6;
/** Weight of a word an abbreviation stands for. */
export const EXPANSION_WEIGHT = 0.8;

export interface Alternative {
  readonly term: string;
  readonly weight: number;
}

function buildTable(): Map<string, Alternative[]> {
  const table = new Map<string, Map<string, number>>();
  const add = (from: string, to: string, weight: number): void => {
    if (from === to) return;
    let row = table.get(from);
    if (!row) table.set(from, (row = new Map()));
    row.set(to, Math.max(row.get(to) ?? 0, weight));
  };
  const termsOf = (phrase: string): string[] => splitWords(phrase).map(termOf);
  for (const group of SYNONYM_GROUPS) {
    const terms = [...new Set(group.flatMap(termsOf))];
    for (const a of terms) for (const b of terms) add(a, b, SYNONYM_WEIGHT);
  }
  for (const [abbr, words] of Object.entries(EXPANSIONS)) {
    for (const w of words.flatMap(termsOf)) add(termOf(abbr), w, EXPANSION_WEIGHT);
  }
  const out = new Map<string, Alternative[]>();
  for (const [from, row] of table) {
    out.set(
      from,
      [...row].map(([term, weight]) => ({ term, weight })).sort((x, y) => (x.term < y.term ? -1 : x.term > y.term ? 1 : 0)),
    );
  }
  return out;
}

const TABLE = buildTable();

/** The other terms a query term also matches, with their weights (empty when it has none). */
export function alternativesOf(term: string): readonly Alternative[] {
  return TABLE.get(term) ?? [];
}

/**
 * Requests whose telling words are function words or symbols ("who am I", "17% of 2450"): each pattern
 * adds the words a tool for it would use. Applied to the raw request, before its words are taken apart.
 */
export const PHRASES: readonly (readonly [pattern: RegExp, words: string])[] = [
  // arithmetic: a percentage, an expression, a statistic of some numbers
  // (a share of a number, not "20% off" or "for 10% of users", which are a discount and a rollout)
  [/\d\s*(%|per ?cent)\s*of\s*[$€£]?\d|\bper ?centage (of|change|increase|decrease)\b|\b(by|plus|minus) \d+(\.\d+)?\s*(%|per ?cent)/i, 'math calculate expression percentage'],
  [/\d\s*(%|per ?cent) off\b/i, 'discount'],
  // (a hyphen only with spaces around it: 2024-01-01 is a date, 10 - 4 a sum)
  [/\d\s*[+*/^×÷]\s*\(?\d|\d\s+-\s+\d|\bsquare root\b|\bsqrt\b/i, 'math calculate expression'],
  [/\b(average|mean|median|sum|total|standard deviation) of\b/i, 'math statistics calculate'],
  // units
  [/\d\s*(km|kilomet(er|re)s?|miles?|mi|kg|kilos?|lbs?|pounds?|°?[cf]|celsius|fahrenheit|feet|ft|meters?|metres?|inch(es)?|cm|mm|lit(er|re)s?|gallons?|mph|kph|oz|ounces?|gb|mb|tb)\b/i, 'convert units'],
  // dates and times
  [/\bday of the week\b|\bweekday\b|\bdays? (between|until|since)\b|\bhow long ago\b|\bhow many days\b/i, 'date difference relative calculate'],
  [/\bwhat time is it\b|\bwhat'?s the time\b|\bcurrent time\b/i, 'current time'],
  [/\b(what|anything|something)('?s| is)? on my (\w+ )?calendar\b|\bmy (day|week|schedule) look\b/i, 'list events calendar'],
  // identity
  [/\bwho am i\b|\blogged in\b|\bsigned in\b/i, 'login verify current user'],
  // who changed a line
  [/\bwho (wrote|changed|last (touched|edited|changed))\b/i, 'blame'],
  // who did something to a thing other than a line of code: its audit log
  [/\bwho (changed|modified|updated|edited|deleted|removed|created|turned)\b(?!.*\b(line|lines|code)\b)/i, 'audit log history'],
  // time worked
  [/\b(log|track|record|enter|submit|fill in|book) (my |our |the |his |her |their )?(hours|time worked)\b/i, 'timesheet'],
  // out of office
  [/\bout of (the )?office\b|\bauto[- ]?repl(y|ies)\b|\bautomatic repl/i, 'automatic replies mailbox settings'],
  // money owed
  [/\bwho owes (us|me)\b|\bowed to (us|me)\b/i, 'receivable aged'],
  [/\b(we|i) owe\b/i, 'payable aged'],
  // arithmetic in words
  [/\badd \d+(\.\d+)? (and|to|plus) \d/i, 'sum math calculate'],
  // a statement of SQL
  [/\bselect\b.+\bfrom\b|\binsert into\b|\bdelete from\b|\bupdate \w+ set\b/i, 'sql query database'],
  // grouping rows
  [/\bgroup(ed|ing)? (them |it )?by\b/i, 'aggregate'],
  // what a page asked of servers
  [/\b(api|network|http|xhr|fetch) (calls?|requests?)\b/i, 'network requests'],
  // a payment page
  [/\bcheckout (link|page|session|url)\b/i, 'payment link'],
  // what is left of something
  [/\bhow much\b.*\b(left|remaining|remain)\b/i, 'balance'],
  // a set of things asked about
  [/^\W*(what|which)\b.*\b(are (there|in|open|on)|do (i|we|you) have|exist|is in)\b/i, 'list'],
  // presence
  [/\bdo not disturb\b/i, 'presence status busy'],
  // a review's verdict
  [/\brequest(ing)? changes\b/i, 'review'],
  // where something is still used
  [/\bused anywhere\b|\bwhere (is|are) .+ used\b|\bstill (used|referenced)\b/i, 'code references usage'],
  // an open question
  [/\btell me (about|what|who|how|why|when|where)\b/i, 'ask search'],
  // many at once
  [/\b(at once|in one go|in bulk|in a batch|all at once)\b/i, 'batch bulk multiple'],
  // a meeting of some length
  [/\b\d+[- ]?(minutes?|mins?|hours?|hrs?)\b.*\b(call|sync|meeting|chat|session|catch ?up|1:1)\b|\b1:1\b/i, 'calendar event meeting'],
  // travel time
  [/\bhow (long|far)\b.*\b(walk|drive|bike|cycle|get|take)\b/i, 'directions distance travel'],
];

/**
 * Idioms whose words mislead when read one by one ("how many" is no batch of anything, "file a bug" no
 * file, "google it" no Google product): each is replaced by what it asks for, before anything else.
 */
export const REWRITES: readonly (readonly [pattern: RegExp, replacement: string])[] = [
  [/\bhow many\b/gi, 'count'],
  [/\bhow much (money|cash|funds?)\b/gi, 'balance'],
  [/^(\W*)google\b/gi, '$1search the web for'],
  [/\bfile (a|an|the|this|that|my|our|new)\b(?!\s+(called|named|to|from|in|into|on)\b)/gi, 'create $1'],
  [/\bto[- ]do\b(?=\s+(list|task|item)s?\b)/gi, 'todo task'],
  [/\bon my plate\b/gi, 'my tasks'],
  [/^(\W*)set(ting)? up\b/gi, '$1setup'],
  [/\bturn(s|ed|ing)? on\b/gi, 'enable'],
  [/\bturn(s|ed|ing)? off\b/gi, 'disable'],
  [/\bopen (a|an) (new )?(pr|prs|pull request|mr|merge request|issue|ticket|bug|incident|case|account)\b/gi, 'create $1 $2$3'],
];

/** The request with every idiom of REWRITES replaced. */
export function rewriteIdioms(query: string): string {
  let out = query;
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement);
  return out;
}

/** The request with the words of every phrase it contains appended. */
export function expandPhrases(query: string): string {
  let out = query;
  for (const [pattern, words] of PHRASES) if (pattern.test(query)) out += ` ${words}`;
  return out;
}
