# chainrules.ad.numpy.linalg is numpy.linalg itself (registered by chainrules.ad.numpy)
from numpy.linalg import *
