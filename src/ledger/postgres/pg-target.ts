/** Where a PostgreSQL ledger lives: the server and database of a URL, and the schema in it. */
export interface PgTarget {
  /** The URL as given, for the driver. */
  url: string
  /** The URL without its password. */
  shown: string
  /** Schema holding the ledger's tables: `?schema=` of the URL, else the server's default (`public`). */
  schema: string | undefined
}
