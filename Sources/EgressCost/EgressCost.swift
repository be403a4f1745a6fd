// EgressCost: see Package.swift for this module's job.
