#include "model/options.h"  // forwarding only: the lead removes it when every branch has landed
