import ModeldCore
