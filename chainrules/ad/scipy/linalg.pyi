# chainrules.ad.scipy.linalg is scipy.linalg with its functions wrapped for the AD engines
# (filled at import time): same names, same signatures.
from scipy.linalg import *

__all__: list[str]
