"""Ops of OpenVINO's 'sequence' spec category."""
