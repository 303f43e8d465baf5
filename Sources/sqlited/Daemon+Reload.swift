import Foundation
import Logging

extension Daemon {
    /// Re-reads the configuration (same command line, current environment and file) and applies what can change
    /// live; the rest is reported as needing a restart and keeps its running value. An invalid configuration
    /// changes nothing.
    ///
    /// Tells systemd `RELOADING=1` (with `MONOTONIC_USEC`) first and `READY=1` when done, whatever the outcome.
    func reload() {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(SystemdNotifier.monotonicMicroseconds())\nSTATUS=reloading")
        defer {
            logSink?.flush()
            notifier.notify("READY=1\nSTATUS=serving")
        }
        let loaded: DaemonConfiguration
        do {
            let values: LayeredConfiguration
            (loaded, values) = try runner.options.load()
            _ = try loaded.checkUnauthenticatedExposure(
                remoteListeners: remoteListeners,
                source: values.source(of: "auth.tokens")
            )
        } catch {
            logger.error("reload failed, keeping the running configuration", metadata: ["error": "\(error)"])
            return
        }
        let running = configuration
        let plan = running.reloadPlan(to: loaded)
        for key in plan.needRestart {
            logger.warning("configuration change needs a restart, not applied", metadata: ["key": "\(key)"])
        }
        guard !plan.applied.isEmpty else {
            logger.info("reloaded, nothing to apply", metadata: ["restart_needed": "\(plan.needRestart.count)"])
            return
        }
        apply(plan.configuration)
        for key in plan.applied {
            logger.info(
                "configuration changed",
                metadata: ["key": "\(key)", "value": "\(Self.describe(key, in: plan.configuration))"]
            )
        }
        logger.info("reloaded", metadata: ["applied": "\(plan.applied.joined(separator: ","))"])
    }

    /// Makes `new` the running configuration and pushes its live parts to the components.
    private func apply(_ new: DaemonConfiguration) {
        setConfiguration(new)
        levelControl.current = new.logLevel
        server.setLimits(new.httpLimits)
        ServiceWiring.applyLiveChanges(new, to: service)
    }

    /// A loggable form of a live key's value (tokens by count only).
    private static func describe(_ key: String, in configuration: DaemonConfiguration) -> String {
        let http = configuration.httpLimits
        let service = configuration.serviceLimits
        switch key {
        case "auth.tokens": return "\(configuration.tokens?.entries.count ?? 0) token(s)"
        case "auth.allow_unauthenticated_remote": return "\(configuration.allowUnauthenticatedRemote)"
        case "log.level": return configuration.logLevel.rawValue
        case "log.request_level": return configuration.requestLogLevel.rawValue
        case "shutdown.timeout_ms": return "\(configuration.shutdownTimeout)"
        case "limits.max_body_size": return "\(http.maxBodySize)"
        case "limits.max_head_size": return "\(http.maxHeadSize)"
        case "limits.max_header_count": return "\(http.maxHeaderCount)"
        case "limits.max_target_length": return "\(http.maxTargetLength)"
        case "limits.head_timeout_ms": return "\(http.headTimeout)"
        case "limits.body_timeout_ms": return "\(http.bodyInactivityTimeout)"
        case "limits.idle_timeout_ms": return "\(http.idleTimeout)"
        case "limits.send_timeout_ms": return "\(http.sendTimeout)"
        case "limits.stream_stall_timeout_ms": return "\(http.streamStallTimeout)"
        case "limits.max_connections": return "\(http.maxConnections)"
        case "limits.max_rows": return "\(service.maxRows)"
        case "limits.statement_timeout_ms": return "\(service.statementTimeout)"
        case "limits.stream_timeout_ms": return "\(service.streamTimeout)"
        case "limits.max_batch_size": return "\(service.maxBatchSize)"
        case "limits.max_statements": return "\(service.maxStatements)"
        case "limits.transaction_idle_timeout_ms": return "\(service.transactionIdleTimeout)"
        case "limits.transaction_max_lifetime_ms": return "\(service.transactionMaxLifetime)"
        case "limits.max_read_transactions": return "\(service.maxReadTransactions)"
        default: return "changed"
        }
    }
}
