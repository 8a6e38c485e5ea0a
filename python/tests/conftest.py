import os
import sys

# the package from this checkout (python/), whatever .pth is installed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
