# Reads the pasteboard named argv[1] by name; prints its data or the error's name.
import os, sys
sys.dont_write_bytecode = True  # read_both is imported from the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pb import *
from read_both import by_name
print(by_name(bus(), sys.argv[1]))
