/**
 * What this process holds about servers besides the database (the tool catalog, its search index, the pooled
 * upstream sessions), told of a change made through this process before the change is answered: a server
 * disabled or deleted here is neither called nor found by search here from the moment the client hears that
 * it is. Other replicas follow through the catalog change feed.
 */
export const LOCAL_SERVER_CHANGES = Symbol('LOCAL_SERVER_CHANGES');

export interface LocalServerChanges {
  /**
   * A server's registration changed (committed). `withdrawn`: it is disabled or deleted, so it is taken out at
   * once whatever the database says now. Resolves when this process serves the change; never rejects.
   */
  serverChanged(serverId: string, change: { withdrawn: boolean }): Promise<void>;
}
