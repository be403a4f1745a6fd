// EventStore: see Package.swift for this module's job.
