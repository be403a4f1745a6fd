// `modeld --help`. Keys, env vars and defaults are documented in docs/configuration.md.

extension Configuration {
    public static let helpText = """
        USAGE: modeld [options]

        Serves ML model files, update checks and outcome events (see docs/configuration.md).
        Settings come from the config file, then MODELD_<KEY> / MODELD_LIMITS_<KEY> /
        MODELD_SIGNING_<KEY> environment variables, then these flags (each also accepts --flag=value):

          --config FILE            config file (default: config/modeld.json when it exists)
          --listen HOST:PORT       address to listen on, an IP literal (default 0.0.0.0:8080; [::]:8080 for IPv6)
          --port N                 replace only the port of the listen address (0 = ephemeral)
          --models-dir DIR         catalog and model files (default models)
          --data-dir DIR           events and access log (default data)
          --public-base-url URL    base of download URLs in /latest answers (default: derived, with a warning)
          --instance-id ID         this replica's name in file names (default: the host name)
          --workers N              event-loop threads (default 0 = one per core)
          -h, --help               show this help

        Configuration errors are printed to stderr and exit with status 2.

        """
}
