import sys

from rlx_mlir.backend.schedules import main

sys.exit(main())
