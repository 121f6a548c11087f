import CX11
import CPNG

// Placeholder: the launch-image helper (issue 5).
print("schemebridge-splash: not implemented yet")
