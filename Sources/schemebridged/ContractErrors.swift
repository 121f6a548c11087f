import DBus
import SchemeBridgeContract
import SchemeBridgeCore

extension DBusError {
    /// The contract's error for a broker failure.
    init(_ failure: OpenFailure) {
        switch failure.kind {
        case .invalidURL: self = ContractError.invalidURL(failure.message)
        case .noHandler: self = ContractError.noHandler(failure.message)
        case .invalidHandler: self = ContractError.invalidHandler(failure.message)
        case .launchFailed: self = ContractError.launchFailed(failure.message)
        case .accessDenied: self = ContractError.accessDenied(failure.message)
        case .reservedScheme: self = ContractError.reservedScheme(failure.message)
        case .rateLimited: self = ContractError.rateLimited(failure.message)
        case .callbackNotOwned: self = ContractError.callbackNotOwned(failure.message)
        case .quotaExceeded: self = ContractError.quotaExceeded(failure.message)
        case .cancelled: self = ContractError.cancelled(failure.message)
        case .noChooser: self = ContractError.noChooser(failure.message)
        case .notTheHandler: self = ContractError.notTheHandler(failure.message)
        case .noTarget: self = ContractError.noTarget(failure.message)
        case .invalidArgument: self.init(.invalidArgs, failure.message)
        case .failed: self.init(.failed, failure.message)
        }
    }
}

extension DBusError {
    /// The contract's error for a pasteboard failure.
    init(_ failure: PasteboardError) {
        switch failure.kind {
        case .noSuchPasteboard: self = ContractError.noSuchPasteboard(failure.message)
        case .ambiguous: self = ContractError.ambiguousPasteboard(failure.message)
        case .accessDenied: self = ContractError.accessDenied(failure.message)
        case .quotaExceeded: self = ContractError.quotaExceeded(failure.message)
        case .noSuchType: self = ContractError.noSuchType(failure.message)
        case .invalidArgument: self.init(.invalidArgs, failure.message)
        case .limitsExceeded: self.init(.limitsExceeded, failure.message)
        case .failed: self.init(.failed, failure.message)
        }
    }
}
